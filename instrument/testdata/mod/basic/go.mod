module example.com/basic

go 1.24

require example.com/dep v0.0.0

replace example.com/dep => ../dep
