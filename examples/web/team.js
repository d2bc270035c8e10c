// The team card (docs/organizations.md): the person's organisations through @gatehouse/client's
// `organizations`: create one, invite by email, switch the active one (the notes card then shows that
// team's shared notes), and the invitations waiting for this person, joined with one click.
import { $, run, value } from './ui.js';

export function team(gatehouse, onSwitch) {
  const orgs = gatehouse.organizations;
  /** The session's active organisation ({organization_id, slug, role, permissions}), or null. */
  let active = null;
  let mine = [];

  const nameOf = (id) => mine.find((org) => org.organization_id === id)?.name ?? 'your team';

  function button(id, text, onclick, secondary = true) {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = id;
    b.className = secondary ? 'secondary' : '';
    b.textContent = text;
    b.onclick = onclick;
    return b;
  }

  function entry(label, id, organizationId) {
    const li = document.createElement('li');
    const text = document.createElement('span');
    text.className = 'grow';
    text.textContent = label;
    li.append(text);
    const current = (active?.organization_id ?? null) === organizationId;
    if (current) {
      const mark = document.createElement('span');
      mark.className = 'muted';
      mark.textContent = 'Active';
      li.append(mark);
    } else {
      li.append(button(id, `Switch to ${organizationId ? nameOf(organizationId) : 'personal notes'}`, () => switchTo(organizationId)));
    }
    return li;
  }

  function draw(invited) {
    $('team-active').textContent = active
      ? `You are working in ${nameOf(active.organization_id)} as ${active.role}: its members share its notes.`
      : 'You are working in your personal notes.';
    $('team-list').replaceChildren(
      entry('Personal notes', 'team-personal', null),
      ...mine.map((org) => entry(`${org.name} (${org.role})`, `team-${org.slug}`, org.organization_id)),
    );
    $('invite-form').hidden = !active?.permissions.includes('org:invitations:manage');
    $('invite-team').textContent = active ? nameOf(active.organization_id) : '';
    $('invitation-list').replaceChildren(
      ...invited.map((invitation) => {
        const li = document.createElement('li');
        const text = document.createElement('span');
        text.className = 'grow';
        const org = invitation.organization_name ?? 'A team';
        text.textContent = `${org} invites you as ${invitation.role}`;
        li.append(text, button(`join-${invitation.invitation_id}`, `Join ${org}`, () => join(invitation), false));
        return li;
      }),
    );
    $('invitations-heading').hidden = invited.length === 0;
  }

  /** An emailed invitation's link lands here with ?invitation_token=: accepted once signed in, then gone from the address. */
  async function acceptFromAddress() {
    const url = new URL(location.href);
    const token = url.searchParams.get('invitation_token');
    if (!token) return;
    url.searchParams.delete('invitation_token');
    history.replaceState(history.state, '', url.href);
    await run('Joining the team…', async () => {
      const membership = await orgs.accept({ token });
      await orgs.setActive(membership.organization_id);
      return 'You joined the team. Its notes are below.';
    });
  }

  async function load() {
    await acceptFromAddress();
    let list, current, invited;
    try {
      [list, current, invited] = await Promise.all([orgs.list(), orgs.getActive(), orgs.invitations.mine()]);
    } catch (error) {
      // An app with organisations off answers 404 to each: no team card, the rest of the page as before.
      if (error?.status !== 404) throw error;
      $('team').hidden = true;
      return;
    }
    $('team').hidden = false;
    mine = list;
    active = current;
    draw(invited);
  }

  function switchTo(organizationId) {
    run('Switching…', async () => {
      await orgs.setActive(organizationId);
      await load();
      await onSwitch();
      return organizationId ? `You are working in ${nameOf(organizationId)} now.` : 'You are working in your personal notes now.';
    });
  }

  function join(invitation) {
    run('Joining the team…', async () => {
      await orgs.accept({ invitationId: invitation.invitation_id });
      await orgs.setActive(invitation.organization_id);
      await load();
      await onSwitch();
      return `You joined ${nameOf(invitation.organization_id)}. Its notes are below.`;
    });
  }

  $('team-form').onsubmit = (event) => {
    event.preventDefault();
    const name = value('team-name');
    if (!name) return;
    run('Creating your team…', async () => {
      const org = await orgs.create({ name });
      await orgs.setActive(org.organization_id);
      $('team-name').value = '';
      await load();
      await onSwitch();
      return `${org.name} is ready, and you are working in it. Invite your teammates below.`;
    });
  };

  $('invite-form').onsubmit = (event) => {
    event.preventDefault();
    const email = value('invite-email');
    if (!email || !active) return;
    run('Sending the invitation…', async () => {
      await orgs.invitations.create(active.organization_id, { email, role: $('invite-role').value, redirectTo: `${location.origin}/` });
      $('invite-email').value = '';
      return `Invitation sent to ${email}.`;
    });
  };

  return {
    load,
    /** The active organisation's name, or null for personal notes. */
    activeName: () => (active ? nameOf(active.organization_id) : null),
    clear() {
      active = null;
      mine = [];
      $('team-list').replaceChildren();
      $('invitation-list').replaceChildren();
    },
  };
}
