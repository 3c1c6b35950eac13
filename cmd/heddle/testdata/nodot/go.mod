module r2

go 1.26
