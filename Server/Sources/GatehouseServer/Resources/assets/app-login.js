// The QR sign-in and push pages' script: follows the status stream, says what is happening, and submits the node
// when it changes. The page works without it (its button does the same).
(function () {
  var status = document.getElementById("app-login-status");
  var form = document.querySelector('form[data-node="login.app"], form[data-node="mfa.push"], form[data-node="login.push"]');
  if (!status || !form || !window.EventSource) return;
  var pushed = form.getAttribute("data-node") !== "login.app";
  var texts = {
    pending: "Waiting for your app\u2026",
    claimed: pushed ? "Waiting for you to approve on your phone\u2026" : "Your app is asking for your PIN\u2026",
    approved: "Approved. Signing you in\u2026"
  };
  var source = new EventSource(status.getAttribute("data-events"));
  source.addEventListener("status", function (event) {
    var state = JSON.parse(event.data).status;
    status.textContent = texts[state] || "";
    if (state === "pending" || state === "claimed") return;
    source.close();
    form.querySelector('button[value="check"]').click();
  });
})();
