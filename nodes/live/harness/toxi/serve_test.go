package toxi

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestStartServer: StartServer reads the URL a server process reports on
// its first line and reaps the process once its standard input closes; a
// process that exits without a URL gives "" (the caller's to stop), as
// does one still silent when ctx ends.
func TestStartServer(t *testing.T) {
	url, stdin, exited, err := StartServer(context.Background(), exec.Command("sh", "-c", "echo ' http://127.0.0.1:1 '; cat >/dev/null"), nil)
	if err != nil || url != "http://127.0.0.1:1" {
		t.Fatalf("StartServer: %q, %v; want the reported URL", url, err)
	}
	stdin.Close()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end once its standard input closed")
	}
	url, _, exited, err = StartServer(context.Background(), exec.Command("sh", "-c", "exit 3"), nil)
	if err != nil || url != "" {
		t.Fatalf("a process that exits silently: %q, %v; want no URL", url, err)
	}
	<-exited
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	cmd := exec.Command("sleep", "30")
	url, stdin, exited, err = StartServer(ctx, cmd, nil)
	if err != nil || url != "" {
		t.Fatalf("a silent process: %q, %v; want no URL when ctx ends", url, err)
	}
	stdin.Close()
	cmd.Process.Kill()
	<-exited
	if _, _, _, err := StartServer(context.Background(), exec.Command("/nonexistent/toxiproxy-server"), nil); err == nil {
		t.Error("a command that cannot start: no error")
	}
}
