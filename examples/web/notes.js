// The notes card: the rows of the app's `notes` table (title text, done bool) through @gatehouse/client's
// tables, newest first: the person's own, or, with a team active (team.js), that team's shared notes, which
// every member reads and writes (organizations.from: new notes belong to the team).
import { $, run } from './ui.js';

export function notes(gatehouse, teamName = () => null) {
  let table = gatehouse.from('notes');

  function item(row) {
    const li = document.createElement('li');
    li.dataset.rowId = row.row_id;
    li.classList.toggle('done', Boolean(row.data.done));
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = Boolean(row.data.done);
    box.setAttribute('aria-label', 'Done');
    box.style.width = 'auto';
    box.onchange = () => run('Saving…', async () => {
      await table.update(row.row_id, { done: box.checked });
      li.classList.toggle('done', box.checked);
      return box.checked ? 'Nice, one less thing to do.' : 'Back on the list.';
    });
    const title = document.createElement('span');
    title.className = 'grow';
    title.textContent = row.data.title;
    const remove = document.createElement('button');
    remove.className = 'quiet';
    remove.textContent = 'Delete';
    remove.onclick = () => run('Deleting…', async () => {
      await table.delete(row.row_id);
      li.remove();
      $('notes-empty').hidden = $('note-list').children.length > 0;
      return 'Note deleted.';
    });
    li.append(box, title, remove);
    return li;
  }

  async function load() {
    const shared = teamName();
    table = shared ? gatehouse.organizations.from('notes') : gatehouse.from('notes');
    $('notes-heading').textContent = shared ? `Notes of ${shared}` : 'Notes';
    $('notes-empty').textContent = shared ? 'No shared notes yet.' : 'No notes yet.';
    const page = await table.select().order('created_at', 'desc').limit(50);
    $('note-list').replaceChildren(...page.rows.map(item));
    $('notes-empty').hidden = page.rows.length > 0;
  }

  $('note-form').onsubmit = (event) => {
    event.preventDefault();
    const title = $('note-title').value.trim();
    if (!title) return;
    run('Saving your note…', async () => {
      const row = await table.insert({ title });
      $('note-list').prepend(item(row));
      $('notes-empty').hidden = true;
      $('note-title').value = '';
      return 'Note saved.';
    });
  };

  return { load };
}
