module example.com/rendezvous

go 1.26
