PIVOT customers ON segment IN ('a', 'b') USING first(ssn) GROUP BY plan
