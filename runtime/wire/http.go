package wire

import (
	"encoding/json"
	"net/http"
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
