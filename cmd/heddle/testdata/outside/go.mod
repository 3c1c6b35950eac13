module example.com/outside

go 1.26
