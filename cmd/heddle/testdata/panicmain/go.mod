module example.com/panicmain

go 1.26
