// Fetching model.json and params.bin, with the URL and the HTTP status in every error.
import { fail } from './errors.js';

async function get(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    fail(`could not fetch ${url}: ${e && e.message ? e.message : e}`);
  }
  if (!response.ok) {
    fail(`fetching ${url} failed: HTTP ${response.status} ${response.statusText}`.trim());
  }
  return response;
}

export async function fetchJson(url) {
  const text = await (await get(url)).text();
  try {
    return JSON.parse(text);
  } catch (e) {
    fail(`${url} is not valid JSON (${e.message}); is it a tensorir model.json?`);
  }
}

export async function fetchBytes(url) {
  return (await get(url)).arrayBuffer();
}
