module example.com/positions

go 1.24
