module loopvar121

go 1.21
