module example.com/oldgo

go 1.16

require example.com/a v0.0.0

replace (
	example.com/a => ./a
	example.com/b => ./b
)
