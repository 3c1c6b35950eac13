package p

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
)

type wrapped struct {
	http.Server // its promoted methods are left alone
}

func serve(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	var plain http.Server
	go plain.ListenAndServe()
	go http.Serve(ln, h)
	go srv.ServeTLS(ln, "cert.pem", "key.pem")
	go plain.ListenAndServeTLS("cert.pem", "key.pem")
	go http.ServeTLS(ln, h, "cert.pem", "key.pem")
	go http.ListenAndServeTLS(":8443", "cert.pem", "key.pem", h)
	stop := srv.Close // a method value: left alone
	_ = stop
	srv.Shutdown(context.Background())
	plain.Close()
	var w wrapped
	w.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()
	return http.ListenAndServe(":8080", h)
}
