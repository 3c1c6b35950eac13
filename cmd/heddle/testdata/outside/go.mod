module example.com/outside

go 1.26

require example.com/rendezvous v0.0.0

replace example.com/rendezvous => ./rendezvous
