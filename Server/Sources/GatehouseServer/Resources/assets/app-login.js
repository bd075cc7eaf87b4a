// The QR sign-in page's script: follows the status stream, says what is happening, and submits the node when it
// changes. The page works without it (its button does the same).
(function () {
  var status = document.getElementById("app-login-status");
  var form = document.querySelector('form[data-node="login.app"]');
  if (!status || !form || !window.EventSource) return;
  var texts = { pending: "Waiting for your app\u2026", claimed: "Your app is asking for your PIN\u2026", approved: "Approved. Signing you in\u2026" };
  var source = new EventSource(status.getAttribute("data-events"));
  source.addEventListener("status", function (event) {
    var state = JSON.parse(event.data).status;
    status.textContent = texts[state] || "";
    if (state === "pending" || state === "claimed") return;
    source.close();
    form.querySelector('button[value="check"]').click();
  });
})();
