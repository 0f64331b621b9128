// The comment bank in the sheet (templates/grading/_sheet_bank.html): `c` on a cell opens its
// criterion's bank, a listbox of the group's notes; a digit (or Enter on the selected note)
// inserts the note's text in the mark's note, saved by the sheet's own note autosave, counts a
// use and offers the note's points in the cell, unsaved until the juror presses Enter there.
// "Add to the bank" beside the note puts the cell's note, with its points, in the bank.
// The inserted text is then the juror's own: the bank is never read again for that mark.

export function setUpBank({ post, say, saveNote, noteInput, currentCell }) {
  const panel = document.getElementById("bank-panel");
  const addButton = document.getElementById("bank-add-button");
  if (!panel) return { open: () => false };
  const banks = new Map([...panel.querySelectorAll(".criterion-bank")].map((bank) => [bank.dataset.code, bank]));
  let from = null; // the cell the bank was opened from
  let list = null;
  panel.hidden = true;

  const options = (listbox) => [...listbox.querySelectorAll('[role="option"]')];
  const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

  function meta(points, uses) {
    const suggested = points ? `${points} ${Number(points) === 1 ? "point" : "points"}` : "no points suggested";
    return `· ${suggested} · used ${plural(uses, "time")}`;
  }

  function select(index) {
    const all = options(list);
    if (!all.length) return;
    const at = Math.max(0, Math.min(all.length - 1, index));
    all.forEach((option, i) => option.setAttribute("aria-selected", i === at ? "true" : "false"));
    list.setAttribute("aria-activedescendant", all[at].id);
    all[at].scrollIntoView({ block: "nearest" });
  }

  function selectedIndex() {
    return options(list).findIndex((option) => option.getAttribute("aria-selected") === "true");
  }

  function show(code) {
    banks.forEach((bank, other) => (bank.hidden = other !== code));
    panel.hidden = false;
  }

  // Opens the bank of the cell's criterion and moves focus into it; false when it has no notes.
  function open(cell) {
    const code = cell.dataset.code;
    const bank = banks.get(code);
    if (!bank) return false;
    show(code);
    from = cell;
    list = bank.querySelector('[role="listbox"]');
    if (!options(list).length) {
      say(`The comment bank of ${code} has no notes yet: write a note and add it with “Add to the bank”.`);
      return false;
    }
    select(Math.max(0, selectedIndex()));
    list.focus();
    return true;
  }

  function close() {
    panel.hidden = true;
    if (from) from.focus();
  }

  async function insert(option) {
    const cell = from;
    const text = option.dataset.text;
    const before = cell.dataset.note;
    close();
    // Inserted twice, a note would read twice: it is there already, so nothing changes and no
    // use is counted.
    if (before && before.split("; ").includes(text)) {
      say(`This note is already in ${cell.dataset.code}'s note; nothing is added.`, "ok");
      return;
    }
    const note = before ? `${before}; ${text}` : text;
    noteInput.value = note;
    const saved = await saveNote(cell, note);
    if (!saved) return;
    const { ok, data } = await post(panel.dataset.useUrl.replace("/notes/0/", `/notes/${option.dataset.id}/`), {});
    if (ok) {
      option.dataset.uses = data.uses;
      option.querySelector(".bank-meta").textContent = meta(option.dataset.points, data.uses);
    }
    const points = option.dataset.points;
    if (points && document.activeElement === cell && points !== cell.dataset.saved) {
      // Offered, not saved: Enter keeps the points, Esc or leaving the cell otherwise drops them.
      cell.value = points;
      cell.dataset.offered = "true";
      cell.select();
      say(`Inserted the note; its ${points} ${Number(points) === 1 ? "point is" : "points are"} offered in ${cell.dataset.code}: Enter keeps them, Esc drops them.`, "ok");
    } else {
      say(`Inserted the note in ${cell.dataset.code}.`, "ok");
    }
  }

  panel.addEventListener("keydown", (event) => {
    if (!list || event.target !== list) return;
    const all = options(list);
    if (/^[1-9]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      const option = all[Number(event.key) - 1];
      if (option) insert(option);
      else say(`The bank of ${from.dataset.code} has ${plural(all.length, "note")}.`, "bad");
    } else if (event.key === "ArrowDown") {
      select(selectedIndex() + 1);
    } else if (event.key === "ArrowUp") {
      select(selectedIndex() - 1);
    } else if (event.key === "Home") {
      select(0);
    } else if (event.key === "End") {
      select(all.length - 1);
    } else if (event.key === "Enter") {
      if (all[selectedIndex()]) insert(all[selectedIndex()]);
    } else if (event.key === "Escape") {
      close();
    } else {
      return;
    }
    event.preventDefault();
  });

  panel.addEventListener("click", (event) => {
    const option = event.target.closest('[role="option"]');
    if (!option || !from) return;
    list = option.closest('[role="listbox"]');
    insert(option);
  });

  function addOption(bank, data) {
    const listbox = bank.querySelector('[role="listbox"]');
    const option = document.createElement("li");
    option.setAttribute("role", "option");
    option.setAttribute("aria-selected", "false");
    option.id = `bank-note-${data.id}`;
    Object.assign(option.dataset, { id: data.id, text: data.text, points: data.points, uses: data.uses });
    const number = document.createElement("span");
    number.className = "bank-number";
    number.textContent = String(options(listbox).length + 1);
    const text = document.createElement("span");
    text.className = "bank-text";
    text.textContent = data.text;
    const details = document.createElement("small");
    details.className = "bank-meta";
    details.textContent = meta(data.points, data.uses);
    option.append(number, " ", text, " ", details);
    listbox.append(option);
    listbox.hidden = false;
    bank.querySelector(".bank-empty")?.remove();
    return options(listbox).length;
  }

  if (addButton) {
    addButton.addEventListener("click", async () => {
      const cell = currentCell();
      if (!cell) return;
      const text = noteInput.value.trim();
      if (!text) {
        say("Write the note first: the bank takes the note of this mark.", "bad");
        return;
      }
      // After the saves still on their way (the note's on leaving its field, the cell's
      // points): the bank takes the points as saved, and its sentence is the last one said.
      await saveNote(cell, noteInput.value);
      const address = panel.dataset.addUrl.replace("__CODE__", encodeURIComponent(cell.dataset.code));
      const { ok, data } = await post(address, { text, points: cell.dataset.saved });
      if (!ok) {
        say(`Not added to the bank: ${data.error}`, "bad");
        return;
      }
      const number = addOption(banks.get(cell.dataset.code), data);
      say(
        data.proposal
          ? `Proposed for the comment bank of ${cell.dataset.code}, as your note ${number}: ` +
              "yours alone until the chair adopts it into the group's bank."
          : `Added to the comment bank of ${cell.dataset.code} as note ${number}.`,
        "ok",
      );
    });
  }

  return { open };
}
