SELECT map([name], [ssn]) FROM customers
