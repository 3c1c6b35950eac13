module example.com/tests

go 1.24
