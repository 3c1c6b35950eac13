module example.com/verbose

go 1.24
