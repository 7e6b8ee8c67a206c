SELECT x FROM (VALUES (1), (2)) t(x)
