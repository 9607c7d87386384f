// Frames frame.html as given: ?frame=<url>&sandbox=<attr|-> pairs, and
// keeps what each frame posts in window.results. (review5e)
const q = new URLSearchParams(location.search);
const frames = q.getAll("frame");
const sandboxes = q.getAll("sandbox");
window.results = [];
addEventListener("message", (ev) => window.results.push({ from: ev.origin, data: ev.data }));
frames.forEach((src, i) => {
  const f = document.createElement("iframe");
  if (sandboxes[i] && sandboxes[i] !== "-") f.setAttribute("sandbox", sandboxes[i]);
  f.src = src;
  document.body.append(f);
});
window.ready = true;
