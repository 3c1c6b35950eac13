module example.com/skips

go 1.24
