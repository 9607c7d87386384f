package provider

import "io"

// gatedReader holds every Read back until open is called: a reader handed
// to a library that starts reading at once, before the caller has finished
// setting the library up. open happens before any Read returns, so what
// the caller wrote before open is visible to the reading goroutine.
type gatedReader struct {
	r    io.Reader
	gate chan struct{}
}

func newGatedReader(r io.Reader) *gatedReader {
	return &gatedReader{r: r, gate: make(chan struct{})}
}

// open lets Reads through; call it once.
func (g *gatedReader) open() { close(g.gate) }

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.gate
	return g.r.Read(p)
}
