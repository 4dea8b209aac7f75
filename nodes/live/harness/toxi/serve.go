package toxi

import (
	"fmt"
	"io"
)

// Serve runs a Toxiproxy server as a process of its own (`electbench
// toxiproxy-server`, which the live harness starts when one process cannot
// hold a cluster's proxies, and in each --netns host): it starts the
// embedded server with its API on host (loopback for a split server, the
// host's address for a --netns host's, which the harness drives from its
// own namespace), writes its URL as one line to out, and serves until in
// reaches its end (the harness closed its pipe, or died), then stops
// every proxy.
func Serve(in io.Reader, out io.Writer, host string) error {
	s, err := StartEmbeddedOn(host)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := fmt.Fprintln(out, s.URL()); err != nil {
		return fmt.Errorf("toxiproxy: reporting the URL: %w", err)
	}
	io.Copy(io.Discard, in)
	return nil
}
