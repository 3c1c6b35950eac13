module example.com/bogor

go 1.26.0
