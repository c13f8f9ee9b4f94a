// presignd upload page (examples/web): plain JavaScript, no framework, no build step.
//
//   small files (up to the threshold): the file's SHA-256 (crypto.subtle) -> POST /presigned-url
//       {contentType, imageKey, size, checksumSHA256, type} -> PUT the bytes to the returned URL with
//       the returned headers -> POST /images {imageKey} (presignd proves the SHA-256 and records it)
//   large files: POST /s3/multipart {filename, type, metadata, size} -> for each part
//       GET /s3/multipart/{uploadId}/{n}?key= -> PUT the slice (ETag from the answer's header)
//       -> POST /s3/multipart/{uploadId}/complete?key= {parts}; DELETE /s3/multipart/{uploadId}?key=
//       when it fails for good.
//
// Settings come from the form, and may be given in the page's query string (?server=&user=&token=
// &type=&threshold=&partSize=). Every outcome is also kept in window.presignResults (the test reads it).
"use strict";

const MiB = 1024 * 1024;
const PART_ATTEMPTS = 5;
const PART_CONCURRENCY = 3;
window.presignResults = [];

// The query string fills the form.
for (const [name, value] of new URLSearchParams(location.search)) {
  const input = document.getElementById(name);
  if (input && input.type === "text") input.value = value;
}

document.getElementById("form").addEventListener("submit", (event) => {
  event.preventDefault();
  const files = Array.from(document.getElementById("files").files);
  const settings = readSettings();
  (async () => {
    for (const file of files) await uploadOne(file, settings);
  })();
});

function readSettings() {
  const value = (id) => document.getElementById(id).value.trim();
  return {
    server: value("server").replace(/\/+$/, ""),
    user: value("user"),
    token: value("token"),
    type: value("type"),
    threshold: Math.max(0, Number(value("threshold")) || 16) * MiB,
    partSize: Math.max(5, Number(value("partSize")) || 8) * MiB,
  };
}

// An error to show: the server's own `message` (the Uppy routes send it beside Companion's `error`,
// since Uppy shows only `message`), its code and every field error, or what storage said, or why the
// browser got no answer.
class UploadError extends Error {}

// ---- one file -------------------------------------------------------------------------------------

async function uploadOne(file, settings) {
  const row = addRow(file);
  const result = { file: file.name, bytes: file.size, status: "uploading" };
  window.presignResults.push(result);
  try {
    const done = file.size <= settings.threshold
      ? await uploadSmall(file, settings, row)
      : await uploadMultipart(file, settings, row);
    Object.assign(result, done, { status: "done" });
    row.progress.value = row.progress.max;
    row.setState("done", `uploaded as ${done.key} (record ${done.recordId})`
      + (done.multipart ? `, ${done.parts} parts, ${done.retries} retried` : "")
      + (done.sha256 ? `, SHA-256 ${done.sha256}` : ""));
  } catch (error) {
    result.status = "error";
    result.error = error.message;
    row.setState("error", error.message);
  }
}

async function uploadSmall(file, settings, row) {
  const contentType = contentTypeOf(file);
  const body = { contentType, imageKey: newUUID(), size: file.size };
  if (settings.type) body.type = settings.type;
  row.setState("uploading", "reading the file's SHA-256");
  const sha256 = await sha256Of(file);
  if (sha256) body.checksumSHA256 = sha256;
  row.setState("uploading", "asking presignd for an upload URL");
  const ticket = await callServer(settings, "POST", "/presigned-url", body);
  row.setState("uploading", "uploading to storage");
  await putToStorage(ticket.signedUrl, file, ticket.headers || { "Content-Type": contentType },
    (sent) => { row.progress.value = sent; });
  row.setState("uploading", "confirming");
  const record = await callServer(settings, "POST", "/images", { imageKey: ticket.imageKey });
  return { key: record.key, recordId: record.id, multipart: false, sha256: record.sha256 || null };
}

// The base64 SHA-256 of a file (read whole: small files only), declared so that presignd proves the
// bytes it records are these; null where the page has no crypto.subtle (not a secure context).
async function sha256Of(file) {
  if (!window.crypto || !window.crypto.subtle) return null;
  const digest = new Uint8Array(await window.crypto.subtle.digest("SHA-256", await file.arrayBuffer()));
  return btoa(String.fromCharCode(...digest));
}

async function uploadMultipart(file, settings, row) {
  const contentType = contentTypeOf(file);
  const metadata = { name: file.name };
  if (settings.type) metadata.uploadType = settings.type;
  row.setState("uploading", "creating the multipart upload");
  // The size goes with it: a file over the type's limit is refused before any part is sent.
  const upload = await callServer(settings, "POST", "/s3/multipart",
    { filename: file.name, type: contentType, metadata, size: file.size });
  const key = encodeURIComponent(upload.key);
  const base = `/s3/multipart/${encodeURIComponent(upload.uploadId)}`;
  const parts = [];
  for (let offset = 0, number = 1; offset < file.size || number === 1; offset += settings.partSize, number++) {
    parts.push({ number, offset, length: Math.min(settings.partSize, file.size - offset) });
  }
  const sentByPart = new Map();
  const progress = () => {
    let sent = 0;
    for (const n of sentByPart.values()) sent += n;
    row.progress.value = sent;
  };
  let retries = 0;
  const etags = new Map();

  async function sendPart(part) {
    let url = null;
    for (let attempt = 1; ; attempt++) {
      try {
        if (url === null) url = (await callServer(settings, "GET", `${base}/${part.number}?key=${key}`)).url;
        const etag = await putToStorage(url, file.slice(part.offset, part.offset + part.length), {},
          (sent) => { sentByPart.set(part.number, sent); progress(); });
        if (!etag) {
          throw new UploadError("storage sent no ETag header: its CORS rule must expose ETag");
        }
        etags.set(part.number, etag);
        sentByPart.set(part.number, part.length);
        progress();
        return;
      } catch (error) {
        sentByPart.set(part.number, 0);
        progress();
        const retryable = error.retryable !== false;
        if (!retryable || attempt >= PART_ATTEMPTS) throw error;
        if (error.status === 403) url = null; // an expired part URL: sign again
        retries++;
        row.setState("uploading", `part ${part.number} failed (${error.message}); retrying`);
        await sleep(Math.min(8000, 500 * 2 ** (attempt - 1)));
      }
    }
  }

  row.setState("uploading", `uploading ${parts.length} parts`);
  try {
    const queue = parts.slice();
    let failed = false;
    const workers = Array.from({ length: Math.min(PART_CONCURRENCY, parts.length) }, async () => {
      while (queue.length > 0 && !failed) {
        try {
          await sendPart(queue.shift());
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    });
    await Promise.all(workers);
    row.setState("uploading", "completing");
    const done = await callServer(settings, "POST", `${base}/complete?key=${key}`,
      { parts: parts.map((p) => ({ PartNumber: p.number, ETag: etags.get(p.number) })) });
    return {
      key: done.key, recordId: done.record ? done.record.id : null, multipart: true,
      uploadId: upload.uploadId, parts: parts.length, retries,
    };
  } catch (error) {
    // Best effort: leave nothing half-uploaded in the bucket.
    callServer(settings, "DELETE", `${base}?key=${key}`).catch(() => {});
    throw error;
  }
}

// ---- presignd -------------------------------------------------------------------------------------

async function callServer(settings, method, path, body) {
  const headers = {};
  if (settings.token) headers["Authorization"] = `Bearer ${settings.token}`;
  else if (settings.user) headers["X-User-Id"] = settings.user;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const url = settings.server + path;
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (_) {
    const error = new UploadError(
      `the browser got no answer from presignd (${method} ${url}): it refused the request (CORS: is this `
      + `page's origin ${location.origin} in cors.allowedOrigins?) or the server is not reachable`);
    error.retryable = true;
    throw error;
  }
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (_) { /* not JSON */ }
  if (!response.ok) {
    const error = new UploadError(serverMessage(response.status, json, text));
    error.status = response.status;
    error.retryable = response.status >= 500 || response.status === 429;
    throw error;
  }
  return json;
}

// "HTTP 422 4220: UNPROCESSABLE_CONTENT (size: must be at most 20971520)"
function serverMessage(status, json, text) {
  if (!json || typeof json !== "object") return `presignd answered HTTP ${status}: ${text.slice(0, 200)}`;
  const message = json.message || "";
  let line = `presignd answered HTTP ${status}${json.code ? " " + json.code : ""}: ${message}`;
  if (json.fieldErrors && typeof json.fieldErrors === "object") {
    const fields = Object.entries(json.fieldErrors).map(([k, v]) => `${k}: ${v}`);
    if (fields.length) line += ` (${fields.join("; ")})`;
  }
  return line;
}

// ---- storage --------------------------------------------------------------------------------------

// PUTs `body` to a presigned URL, exactly as received (never rebuilt), with progress; the ETag.
function putToStorage(url, body, headers, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    for (const [name, value] of Object.entries(headers)) {
      // The browser sets Content-Length itself from the body.
      if (name.toLowerCase() !== "content-length") xhr.setRequestHeader(name, value);
    }
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(xhr.getResponseHeader("ETag"));
        return;
      }
      const code = xmlElement(xhr.responseText, "Code");
      const message = xmlElement(xhr.responseText, "Message");
      const error = new UploadError(
        `storage refused the upload: HTTP ${xhr.status}${code ? " " + code : ""}${message ? ": " + message : ""}`);
      error.status = xhr.status;
      error.retryable = xhr.status >= 500 || xhr.status === 429 || xhr.status === 403
        || code === "RequestTimeout" || code === "SlowDown";
      reject(error);
    };
    xhr.onerror = () => {
      const error = new UploadError(
        `the browser got no answer from storage (PUT ${url.split("?")[0]}): it refused the request (CORS: `
        + `does the bucket's rule allow ${location.origin}?) or storage is not reachable`);
      error.retryable = true;
      reject(error);
    };
    xhr.send(body);
  });
}

function xmlElement(text, name) {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(text || "");
  return match && match[1] ? match[1] : null;
}

// ---- small helpers --------------------------------------------------------------------------------

function contentTypeOf(file) {
  if (file.type) return file.type;
  const ext = (file.name.split(".").pop() || "").toLowerCase();
  return {
    jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", heic: "image/heic", webp: "image/webp",
    mp4: "video/mp4", mov: "video/quicktime", webm: "video/webm",
  }[ext] || "application/octet-stream";
}

// A version 4 UUID (crypto.randomUUID needs a secure context; getRandomValues does not).
function newUUID() {
  if (window.crypto.randomUUID) return window.crypto.randomUUID();
  const b = window.crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function addRow(file) {
  const div = document.createElement("div");
  div.className = "file";
  div.dataset.status = "uploading";
  const name = document.createElement("div");
  name.textContent = `${file.name} (${(file.size / MiB).toFixed(1)} MiB)`;
  const progress = document.createElement("progress");
  progress.max = Math.max(1, file.size);
  progress.value = 0;
  const state = document.createElement("div");
  state.className = "state";
  div.append(name, progress, state);
  document.getElementById("list").append(div);
  return {
    progress,
    setState(status, text) { div.dataset.status = status; state.textContent = text; },
  };
}
