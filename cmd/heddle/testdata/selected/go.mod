module example.com/selected

go 1.24
