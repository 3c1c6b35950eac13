package p

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

func fetch(u string) {
	client := http.Client{Timeout: 3 * time.Second}
	client.Get(u) // a value: its address is taken
	c := &http.Client{}
	req, _ := http.NewRequest("GET", u, nil)
	c.Do(req)
	c.Head(u)
	c.Post(u, "text/plain", strings.NewReader("x"))
	c.PostForm(u, url.Values{})
	http.Get(u)     // http.DefaultClient, without a timeout: left alone
	get := c.Get    // a method value: left alone
	c.CloseIdleConnections() // the stand-in's connections kept alive
	tr := &http.Transport{}
	tr.RoundTrip(req) // carried by the transport's stand-in in a run
	tr.CloseIdleConnections()
	var rt http.RoundTripper = tr
	rt.RoundTrip(req) // through the interface: the same
	_ = get
}
