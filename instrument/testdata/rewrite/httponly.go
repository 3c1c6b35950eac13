package p

import (
	"log"
	"net/http"
)

// A profiling server started by init, net/http's only use in the file (xtaci/smux's tests):
// the import is blanked once the call is rt/net/http's.
func init() {
	go func() {
		log.Println(http.ListenAndServe("0.0.0.0:6060", nil))
	}()
}
