// Validate one glTF/GLB file with the Khronos glTF validator; print its report as JSON.
// Usage: node validate.js FILE  (exit 0 when validated, whatever the report says).
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

const file = process.argv[2];
const data = new Uint8Array(fs.readFileSync(file));
validator
  .validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: () => Promise.reject(new Error("external resources are not used")),
  })
  .then((report) => {
    process.stdout.write(JSON.stringify(report));
  })
  .catch((error) => {
    process.stderr.write(String(error) + "\n");
    process.exit(2);
  });
