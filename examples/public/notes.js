// The live feed of the notes page: every note created on any process arrives as one event
// (see /api/feed); a note already on the page is not added twice.
const list = document.getElementById("notes");
const feed = new EventSource("/api/feed");
feed.addEventListener("ready", () => document.body.dataset.live = "true");
feed.onmessage = (event) => {
  const note = JSON.parse(event.data);
  if (list.querySelector(`[data-id="${note.id}"]`)) return;
  const item = document.createElement("li");
  item.dataset.id = String(note.id);
  const author = document.createElement("strong");
  author.textContent = note.author;
  item.append(author, `: ${note.text}`);
  list.append(item);
};
