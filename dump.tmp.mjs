import { parse } from "yaml";
import fs from "node:fs";
const doc = parse(fs.readFileSync("node_modules/@neondatabase/api-client/public-v2-for-users.gen.yaml","utf8"));
const names = process.argv.slice(2);
const seen = new Set();
function walk(n){ if(seen.has(n)) return; seen.add(n); const s = doc.components.schemas[n]; console.log("## "+n+": "+JSON.stringify(s, (k,v)=> k==="description"||k==="example"?undefined:v)); JSON.stringify(s,(k,v)=>{ if(k==="$ref") walk(v.split("/").pop()); return v;}); }
names.forEach(walk);
