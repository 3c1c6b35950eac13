module github.com/heddledbg/heddle

go 1.26.0

require (
	github.com/gorilla/websocket v1.5.3
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
)

require golang.org/x/sync v0.24.0 // indirect
