SELECT range AS n FROM range(5)
