package toxi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
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

// StartServer starts cmd, a process that runs Serve (`electbench
// toxiproxy-server`), with start (cmd.Start when nil), and waits for the
// URL it reports. It returns the process's standard input (closing it
// stops the server), a channel closed once the process has exited and
// been reaped, and the URL: "" when ctx ended or the process exited
// first, and then the caller stops it. Its standard output is read here
// and its standard error is the caller's to set.
func StartServer(ctx context.Context, cmd *exec.Cmd, start func(*exec.Cmd) error) (url string, stdin io.WriteCloser, exited <-chan struct{}, err error) {
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if stdin, err = cmd.StdinPipe(); err != nil {
		return "", nil, nil, fmt.Errorf("the server's stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return "", nil, nil, fmt.Errorf("the server's stdout: %w", err)
	}
	if err := start(cmd); err != nil {
		stdin.Close()
		return "", nil, nil, err
	}
	done := make(chan struct{})
	urls := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			urls <- strings.TrimSpace(sc.Text())
		}
		close(urls)
		io.Copy(io.Discard, stdout)
		cmd.Wait()
	}()
	select {
	case url = <-urls:
	case <-ctx.Done():
	}
	return url, stdin, done, nil
}
