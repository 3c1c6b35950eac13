module example.com/hb

go 1.26.0
