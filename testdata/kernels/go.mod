module example.com/kernels

go 1.26.0

require (
	github.com/heddledbg/heddle v0.0.0
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.14.0
)

require github.com/anishathalye/porcupine v1.3.1 // indirect

// The kernels that check linearizability use heddle's package lin; under heddle test the
// instrumenter replaces the module with heddle's runtime, here it is this checkout.
replace github.com/heddledbg/heddle => ../..
