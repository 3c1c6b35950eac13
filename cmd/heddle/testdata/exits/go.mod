module example.com/exits

go 1.26
