// Command ferretdb runs FerretDB v1 with its SQLite backend as a MongoDB-wire server for the
// Underdog test harness. It embeds the public ferretdb package because a plain `go install` of
// the v1 command panics on the version.txt that only its release build generates.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	stateDir := flag.String("state-dir", ".", "directory for the SQLite databases")
	debug := flag.Bool("debug", false, "log at debug level")
	flag.Parse()

	if err := run(*listenAddr, *stateDir, *debug); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

func run(listenAddr, stateDir string, debug bool) error {
	dir, err := filepath.Abs(stateDir)
	if err != nil {
		return err
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	level := slog.LevelWarn
	if debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		return err
	}

	// The harness stops us with SIGTERM; cancelling the context closes the listener and the
	// SQLite files cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	fmt.Fprintf(os.Stderr, "ferretdb: listening on %s, data in %s\n", listenAddr, dir)
	return f.Run(ctx)
}
