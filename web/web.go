// Package web holds the built single-page web view of Heddle.
//
// The sources are TypeScript under src/, bundled by build.mjs into dist/,
// which is committed so that a plain go build embeds the web view without
// needing npm. dist/source.sha256 records a hash of the sources the bundle
// was built from; a test recomputes it to catch a stale bundle.
//
// src/wire.gen.ts, the TypeScript types of the files the view reads, is
// generated from the Go types by internal/tsgen (go generate ./web).
package web

//go:generate go run ../internal/tsgen -root ..

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Assets is the built web view: index.html and the files it loads.
var Assets fs.FS

func init() {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded above, so this cannot happen
	}
	Assets = sub
}

// TokenPlaceholder stands for the session token in index.html. The server
// replaces it so that the page can load its script and style sheet, which
// need the token like every other request.
const TokenPlaceholder = "{{HEDDLE_TOKEN}}"
