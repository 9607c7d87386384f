package web

import _ "embed"

// ApprovePage is the approval window's html/template (issue 22): Core
// serves it at /console/approve/<id> with the request, the per-run
// approver token and a script nonce filled in.
//
//go:embed approve/approve.html
var ApprovePage string
