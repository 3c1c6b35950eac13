module example.com/http2

go 1.26
