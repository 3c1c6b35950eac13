module example.com/vendored

go 1.24
