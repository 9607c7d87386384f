package wire

import (
	"encoding/json"
	"net/http"
	"strings"
)

// WriteJSON answers an HTTP request with status and v as its JSON body.
// Core's HTTP surface and the packages under runtime/ that serve part of it
// (the peer check, asset transfers) answer through this one function, so
// every JSON answer carries the same Content-Type.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// BearerToken is the credential of an "Authorization: Bearer <token>"
// header. The scheme is matched case-insensitively (RFC 9110, 11.1); a
// header without it (the bare token, another scheme) carries no bearer
// token at all.
func BearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}
