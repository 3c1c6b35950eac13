module example.com/leftbehind

go 1.26
