module hbcases

go 1.26.0
