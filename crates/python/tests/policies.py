"""FCFS and EASY written in Python, as the LOS thesis' appendix A states
them (and as the built-in `fcfs` and `easy` implement them)."""

import schedsim


class Fcfs(schedsim.Policy):
    name = "python-fcfs"

    def schedule(self, view):
        free, out = view.free, []
        for job in view.queue:
            size = view.size(job)
            if size > free:
                break
            out.append(("start", job))
            free -= size
        return out


class Easy(schedsim.Policy):
    name = "python-easy"

    def schedule(self, view):
        now, free, queue = view.now, view.free, view.queue
        out, started = [], []
        position = 0
        # Heads start while they fit.
        while position < len(queue) and view.size(queue[position]) <= free:
            job = queue[position]
            out.append(("start", job))
            free -= view.size(job)
            started.append((now + view.estimate(job), view.size(job)))
            position += 1
        if position == len(queue) or free == 0:
            return out
        head = queue[position]
        need = view.size(head)
        # The shadow time: running and just-started jobs by expected end,
        # until the head fits; all jobs ending at that instant add to the
        # extra processors.
        ends = sorted([(end, size) for (_, size, _, end) in view.running] + started)
        available, shadow, extra = free, None, 0
        for index, (end, size) in enumerate(ends):
            available += size
            if available >= need:
                extra = available - need
                for other_end, other_size in ends[index + 1:]:
                    if other_end != end:
                        break
                    extra += other_size
                shadow = end
                break
        if shadow is None:
            return out
        # Backfill: jobs that fit and end by the shadow time or fit in the
        # extra processors (which they then use up).
        for job in queue[position + 1:]:
            if free == 0:
                break
            size = view.size(job)
            if size > free:
                continue
            if now + view.estimate(job) <= shadow:
                out.append(("start", job))
                free -= size
            elif size <= extra:
                out.append(("start", job))
                free -= size
                extra -= size
        return out
