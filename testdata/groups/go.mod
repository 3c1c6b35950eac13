module example.com/groups

go 1.26.0
