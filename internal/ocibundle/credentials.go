package ocibundle

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// credential is what the Docker configuration holds for a registry: a user and password,
// or an identity token (exchanged for an access token), or a registry token (sent as is).
type credential struct {
	Username, Password string
	IdentityToken      string
	RegistryToken      string
}

func (c credential) empty() bool { return c == credential{} }

// dockerConfig is the part of ~/.docker/config.json read for credentials.
type dockerConfig struct {
	Auths       map[string]authEntry `json:"auths"`
	CredsStore  string               `json:"credsStore"`
	CredHelpers map[string]string    `json:"credHelpers"`
}

type authEntry struct {
	Auth          string `json:"auth"`
	Username      string `json:"username"`
	Password      string `json:"password"`
	IdentityToken string `json:"identitytoken"`
	RegistryToken string `json:"registrytoken"`
}

// dockerConfigPath is $DOCKER_CONFIG/config.json, else ~/.docker/config.json.
func dockerConfigPath() (string, error) {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".docker")
	}
	return filepath.Join(dir, "config.json"), nil
}

// serverAddress is the key Docker keeps a registry's credentials under: Docker Hub's are
// under its legacy index address.
func serverAddress(host string) string {
	if host == "registry-1.docker.io" || host == "docker.io" {
		return "https://index.docker.io/v1/"
	}
	return host
}

// dockerCredential returns the credentials of the Docker configuration for host: those of
// its credential helper (credHelpers, else credsStore) when it has one, else of auths
// (whose keys may carry a scheme and a path, as older configurations wrote them). No
// configuration, or nothing for host, is the empty credential.
func dockerCredential(ctx context.Context, host string) (credential, error) {
	path, err := dockerConfigPath()
	if err != nil {
		return credential{}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return credential{}, nil
	} else if err != nil {
		return credential{}, err
	}
	var cfg dockerConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return credential{}, fmt.Errorf("%s: %v", path, err)
	}
	addr := serverAddress(host)
	if helper := cfg.CredHelpers[addr]; helper != "" {
		return helperCredential(ctx, helper, addr)
	}
	if cfg.CredsStore != "" {
		return helperCredential(ctx, cfg.CredsStore, addr)
	}
	entry, ok := cfg.Auths[addr]
	if !ok {
		for key, e := range cfg.Auths {
			key = strings.TrimPrefix(strings.TrimPrefix(key, "http://"), "https://")
			if key, _, _ = strings.Cut(key, "/"); key == addr {
				entry, ok = e, true
				break
			}
		}
	}
	if !ok {
		return credential{}, nil
	}
	c := credential{Username: entry.Username, Password: entry.Password, IdentityToken: entry.IdentityToken, RegistryToken: entry.RegistryToken}
	if entry.Auth != "" {
		raw, err := base64.StdEncoding.DecodeString(entry.Auth)
		user, pass, found := strings.Cut(string(raw), ":")
		if err != nil || !found {
			return credential{}, fmt.Errorf("%s: the auth of %s is not base64 of user:password", path, addr)
		}
		c.Username, c.Password = user, pass
	}
	return c, nil
}

// helperCredential runs docker-credential-<helper> get for addr. A helper that has none
// for addr is the empty credential; a user "<token>" means the secret is an identity token.
func helperCredential(ctx context.Context, helper, addr string) (credential, error) {
	name := "docker-credential-" + helper
	cmd := exec.CommandContext(ctx, name, "get")
	cmd.Stdin = strings.NewReader(addr)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stdout.String() + stderr.String())
		if strings.Contains(msg, "credentials not found") {
			return credential{}, nil
		}
		if msg == "" {
			msg = err.Error()
		}
		return credential{}, fmt.Errorf("%s get: %s", name, msg)
	}
	var out struct{ Username, Secret string }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return credential{}, fmt.Errorf("%s get: %v", name, err)
	}
	if out.Username == "<token>" {
		return credential{IdentityToken: out.Secret}, nil
	}
	return credential{Username: out.Username, Password: out.Secret}, nil
}
