package wire

// Session assets over the WebSocket: only listings and tickets travel
// there. The bytes go over plain HTTP on Core's port (AssetUploadPath,
// AssetReadPath), each request authorised by a short-lived, single-use
// ticket for one path of one session, issued to one page origin.
const (
	MethodListAssets        = "list_assets"
	MethodAssetUploadTicket = "asset_upload_ticket"
	MethodAssetReadTicket   = "asset_read_ticket"

	// AssetUploadPath + "{sessionId}/{ticket}" takes a PUT of the bytes.
	AssetUploadPath = "/assets/upload/"
	// AssetReadPath + "{sessionId}/{ticket}" answers a GET with the bytes.
	AssetReadPath = "/assets/read/"

	// Response headers of a read, so the page's File carries them.
	HeaderAssetName       = "X-Pedelec-Asset-Name" // percent-encoded UTF-8 basename
	HeaderAssetModifiedAt = "X-Pedelec-Asset-Modified-At"
)

// Asset is one regular file in the session's assets/ directory; Path is
// public ("/results/report.json"), rooted in that directory.
type Asset struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	SizeBytes  int64  `json:"sizeBytes"`
	ModifiedAt int64  `json:"modifiedAt"` // Unix milliseconds
}

// ListAssetsResult answers list_assets.
type ListAssetsResult struct {
	Assets []Asset `json:"assets"`
}

// AssetUploadTicketParams asks to upload SizeBytes bytes to Path.
type AssetUploadTicketParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	SizeBytes *int64 `json:"sizeBytes"`
}

// AssetReadTicketParams asks to read Path.
type AssetReadTicketParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
}

// AssetTicket answers both ticket methods. URL is relative to Core's base
// URL; it works once, before ExpiresAt (Unix ms), from the same origin.
// Asset describes the file to read (read tickets only); MimeType too.
type AssetTicket struct {
	URL       string `json:"url"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	ExpiresAt int64  `json:"expiresAt"`
	Asset     *Asset `json:"asset,omitempty"`
	MimeType  string `json:"mimeType,omitempty"`
}

// AssetUploaded is the JSON body of a successful upload PUT.
type AssetUploaded struct {
	OK    bool  `json:"ok"`
	Asset Asset `json:"asset"`
}
