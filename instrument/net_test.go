package instrument

// The virtual network's packages, for the rewrite tests of code that serves and fetches HTTP
// (testdata/rewrite/httpserve.go).
func init() {
	checkerImports = append(checkerImports, "net", "net/http", "net/http/httptest",
		shadows["net"], shadows["net/http/httptest"], rtPath+"/net/http")
}
