package kube

import (
	"encoding/base64"
	"net/http"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// authProviderSecrets are the keys of an auth-provider's config that hold
// credentials (oidc's and the cloud providers' cached tokens).
var authProviderSecrets = []string{"access-token", "id-token", "refresh-token", "client-secret", "idp-certificate-authority-data"}

// auth is what a client config authenticates with, wherever it came
// from: a kubeconfig user, or the resolved client config.
type auth struct {
	token, tokenFile, user, password, keyData, keyFile string
	provider                                           map[string]string // an auth-provider's config
}

// remember hands a's credentials to remember, the files' contents read.
func (a auth) remember(remember func(user, secret string)) {
	remember("", a.token)
	remember("", readSecret(a.tokenFile))
	remember(a.user, a.password)
	remember("", a.keyData)
	remember("", readSecret(a.keyFile))
	for _, k := range authProviderSecrets {
		remember("", a.provider[k])
	}
}

// rememberKubeconfig hands every credential of the kubeconfig's users to
// remember, before anything can fail with one in its message: tokens and
// token files, basic auth passwords, client keys (inline or the file's
// content) and auth-provider tokens. All users, not only the current
// context's: --context and an env's own context pick another.
func rememberKubeconfig(raw clientcmdapi.Config, remember func(user, secret string)) {
	for _, u := range raw.AuthInfos {
		if u == nil {
			continue
		}
		a := auth{token: u.Token, tokenFile: u.TokenFile, user: u.Username, password: u.Password,
			keyData: string(u.ClientKeyData), keyFile: u.ClientKey}
		if u.AuthProvider != nil {
			a.provider = u.AuthProvider.Config
		}
		a.remember(remember)
	}
}

// rememberRest hands the credentials of the resolved client config to
// remember: what the kubeconfig did not hold itself, such as the
// in-cluster service account's token.
func rememberRest(cfg *rest.Config, remember func(user, secret string)) {
	a := auth{token: cfg.BearerToken, tokenFile: cfg.BearerTokenFile, user: cfg.Username, password: cfg.Password,
		keyData: string(cfg.KeyData), keyFile: cfg.KeyFile}
	if cfg.AuthProvider != nil {
		a.provider = cfg.AuthProvider.Config
	}
	a.remember(remember)
}

// readSecret is a credential file's content, "" when unreadable (loading
// the config reports that).
func readSecret(name string) string {
	if name == "" {
		return ""
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// authWatcher sees each request once its credentials are set, below the
// bearer, basic, auth-provider and exec plugin layers, and hands the
// Authorization header's credential to remember before the request is
// sent: a token an exec plugin returns, or a rotated token file's, is
// known before any answer can echo it.
type authWatcher struct {
	next     http.RoundTripper
	remember func(user, secret string)
}

func (a *authWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	for _, h := range req.Header.Values("Authorization") {
		scheme, cred, ok := strings.Cut(strings.TrimSpace(h), " ")
		if !ok {
			a.remember("", scheme)
			continue
		}
		cred = strings.TrimSpace(cred)
		a.remember("", cred)
		if strings.EqualFold(scheme, "basic") {
			if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
				if user, pass, ok := strings.Cut(string(dec), ":"); ok {
					a.remember(user, pass)
				}
			}
		}
	}
	return a.next.RoundTrip(req)
}

// watchAuth makes cfg's requests hand their credentials to remember.
func watchAuth(cfg *rest.Config, remember func(user, secret string)) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &authWatcher{next: rt, remember: remember} })
}
