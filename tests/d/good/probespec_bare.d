// flags: -n
BEGIN