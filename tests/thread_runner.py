"""Run a test body in several threads at once and collect what went wrong."""
import threading


def run_in_threads(work, count=4):
    """Call ``work(i)`` for i in range(count), each in its own thread; return the
    list of exceptions raised (empty when every call finished cleanly)."""
    errors = []

    def guarded(i):
        try:
            work(i)
        except Exception as exc:        # noqa: BLE001 -- returned to the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors
