module example.com/loopvar121

go 1.21
