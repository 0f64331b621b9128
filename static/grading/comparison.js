// The comparison's Print button: hidden without script, since printing is the browser's own.
document.addEventListener("DOMContentLoaded", () => {
  const button = document.getElementById("print-comparison");
  if (!button) return;
  button.hidden = false;
  button.addEventListener("click", () => window.print());
});
