SELECT unnest([1, 2, 3]) AS n
