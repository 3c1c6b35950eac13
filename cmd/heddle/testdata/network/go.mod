module example.com/network

go 1.26
