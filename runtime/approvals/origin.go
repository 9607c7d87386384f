package approvals

import (
	"net"
	"net/url"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// NormalizeOrigin turns what a person types or a browser sends into the
// origin a grant is kept under: scheme://host[:port], lower case, the
// default port left out as browsers leave it out, so that
// "HTTPS://App.Example:443/" and the page's "https://app.example" are one
// grant. Only http and https origins can be approved: "null" (a sandboxed
// frame, a file: page) names no site the user could recognise.
func NormalizeOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", wire.Errorf(wire.CodeInvalidInput, "%q is not an origin (scheme://host[:port], http or https)", origin).
			WithDetails(map[string]any{"origin": origin})
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	return scheme + "://" + host, nil
}

// looksLikeOrigin tells an origin from a request id in `approve <origin|id>`.
func looksLikeOrigin(s string) bool { return strings.Contains(s, "://") }
